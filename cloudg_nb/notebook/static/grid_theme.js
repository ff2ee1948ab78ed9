
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
  const ours = new Set(Object.values(cloudgGridThemes));
  return {
    ...widget,
    render(props) {
      const { model } = props;
      const follow = () => {
        const shown = model.get("theme");
        const theme = cloudgPageIsDark() ? cloudgGridThemes.dark : cloudgGridThemes.light;
        // a theme set on purpose (any but the two light/dark ones) stays as it is
        if ((!shown || ours.has(shown)) && shown !== theme) {
          model.set("theme", theme);
          model.save_changes();
        }
      };
      follow();
      const watch = new MutationObserver(follow);
      watch.observe(document.body, {
        attributes: true,
        attributeFilter: ["data-jp-theme-light", "class"],
      });
      return Promise.resolve(widget.render(props)).then((cleanup) => () => {
        watch.disconnect();
        if (typeof cleanup === "function") {
          cleanup();
        }
      }, (error) => {
        watch.disconnect();
        throw error;
      });
    },
  };
}
