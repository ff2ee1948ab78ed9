
// cloudg grid theme: appended to perspective's anywidget bundle by cloudg_nb/notebook/grid.py,
// which passes the bundle's own widget to cloudgFollowTheme and exports what it returns. The
// viewer shows perspective's "Pro Dark" on a dark page and "Pro Light" on a light one, and
// switches when the page's theme does (JupyterLab's Settings > Theme, VS Code's theme).
const cloudgGridThemes = { light: "Pro Light", dark: "Pro Dark" };

function cloudgPageIsDark() {
  const body = document.body;
  const light = body.dataset.jpThemeLight; // JupyterLab and Notebook 7 set it with the theme
  if (light === "true" || light === "false") {
    return light === "false";
  }
  const classes = body.classList; // VS Code's notebook outputs
  return classes.contains("vscode-dark") || (classes.contains("vscode-high-contrast")
    && !classes.contains("vscode-high-contrast-light"));
}

function cloudgFollowTheme(widget) {
  if (typeof widget === "function") { // anywidget's other form: a function giving the widget
    return async (...args) => cloudgFollowTheme(await widget(...args));
  }
  const ours = new Set(Object.values(cloudgGridThemes));
  return {
    ...widget,
    render(props) {
      const { model, el } = props;
      // The datagrid reads its colours (numbers, lines) from the theme's CSS when it draws and
      // keeps them: a theme named while it was still loading left the old theme's colours in
      // its cells (light blue numbers on the dark backdrop). Once the viewer has the theme and
      // has drawn, it is asked to read them again.
      const restyle = () => {
        for (const wait of [50, 600, 2500]) {
          setTimeout(async () => {
            const viewer = el && el.querySelector("perspective-viewer");
            if (!viewer || typeof viewer.restyleElement !== "function") {
              return;
            }
            try {
              if (typeof viewer.flush === "function") {
                await viewer.flush();
              }
              await viewer.restyleElement();
            } catch (error) {
              // a viewer being removed: nothing to restyle
            }
          }, wait);
        }
      };
      const follow = () => {
        const shown = model.get("theme");
        const theme = cloudgPageIsDark() ? cloudgGridThemes.dark : cloudgGridThemes.light;
        // a theme set on purpose (any but the two light/dark ones) stays as it is
        if ((!shown || ours.has(shown)) && shown !== theme) {
          model.set("theme", theme);
          model.save_changes();
          restyle();
          return true;
        }
        return false;
      };
      follow();
      // The page's theme switched: follow it. The model's theme was set back (the kernel's
      // initial state arriving after the view, the viewer's default on load): the page's
      // again, a few times at most (two pages in different themes showing one grid must not
      // trade its theme back and forth for ever).
      let corrections = 0;
      let dark = cloudgPageIsDark();
      const onPage = () => {
        if (cloudgPageIsDark() !== dark) {
          dark = !dark;
          corrections = 0;
          follow();
        }
      };
      const onModel = () => {
        if (corrections < 3 && follow()) {
          corrections += 1;
        }
      };
      const watch = new MutationObserver(onPage);
      watch.observe(document.body, {
        attributes: true,
        attributeFilter: ["data-jp-theme-light", "class"],
      });
      model.on("change:theme", onModel);
      const stop = () => {
        watch.disconnect();
        model.off("change:theme", onModel);
      };
      // Whoever names the viewer's theme (this wrapper, perspective restoring the model's
      // state, the viewer's own settings menu), the datagrid is asked to read it again.
      let themed = null;
      const onViewerTheme = new MutationObserver((changes) => {
        if (changes.some((c) => c.oldValue !== c.target.getAttribute("theme"))) {
          clearTimeout(themed);
          themed = setTimeout(restyle, 100);
        }
      });
      return Promise.resolve(widget.render(props)).then((cleanup) => {
        const viewer = el && el.querySelector("perspective-viewer");
        if (viewer) {
          onViewerTheme.observe(viewer, { attributes: true, attributeFilter: ["theme"],
                                          attributeOldValue: true, subtree: true });
        }
        restyle();
        return cleanup;
      }).then((cleanup) => () => {
        onViewerTheme.disconnect();
        clearTimeout(themed);
        stop();
        if (typeof cleanup === "function") {
          cleanup();
        }
      }, (error) => {
        stop();
        throw error;
      });
    },
  };
}
