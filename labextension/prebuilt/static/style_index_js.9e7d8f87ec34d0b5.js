"use strict";(self.rspackChunkcloudg_nb_lab=self.rspackChunkcloudg_nb_lab||[]).push([["style_index_js"],{"./node_modules/css-loader/dist/cjs.js!./style/base.css"(o,r,e){var t=e("./node_modules/css-loader/dist/runtime/noSourceMaps.js"),a=e.n(t),n=e("./node_modules/css-loader/dist/runtime/api.js"),l=(e.n(n))()(a());l.push([o.id,`/*
 * The cloudg sidebar and status item. JupyterLab's theme variables only (no colour of our
 * own), so both follow the light, dark and high-contrast themes. Text reads at 4.5:1 or more
 * in both (WCAG AA): a theme's state colours that do not (orange on white, red on dark grey)
 * are swapped for a darker or lighter step of the same variable family, by theme.
 */

.cloudg-Sidebar,
.cloudg-Status {
  --cloudg-error-text: var(--jp-error-color0);
  --cloudg-success-text: var(--jp-success-color0);
  --cloudg-warn-text: var(--jp-ui-font-color0);
  --cloudg-pending-background: var(--jp-warn-color3);
  --cloudg-pending-text: var(--jp-ui-font-color0);
}

[data-jp-theme-light='false'] .cloudg-Sidebar,
[data-jp-theme-light='false'] .cloudg-Status {
  --cloudg-error-text: var(--jp-error-color2);
  --cloudg-success-text: var(--jp-success-color1);
  --cloudg-warn-text: var(--jp-warn-color1);
  --cloudg-pending-background: var(--jp-warn-color1);
  --cloudg-pending-text: var(--jp-ui-inverse-font-color0);
}

.cloudg-Sidebar {
  background: var(--jp-layout-color1);
  color: var(--jp-ui-font-color1);
  font-family: var(--jp-ui-font-family);
  font-size: var(--jp-ui-font-size1);
}

.cloudg-Sidebar .lm-AccordionPanel > .lm-Widget:not(.jp-AccordionPanel-title) {
  overflow-y: auto;
  padding: 4px 8px 8px;
  box-sizing: border-box;
  background: var(--jp-layout-color1);
}

.cloudg-Section-status {
  margin: 6px 0;
  color: var(--jp-ui-font-color2);
}

.cloudg-Subhead {
  margin: 12px 0 4px;
  font-size: var(--jp-ui-font-size0);
  font-weight: 600;
  letter-spacing: 0.5px;
  text-transform: uppercase;
  color: var(--jp-ui-font-color2);
}

.cloudg-mod-muted {
  color: var(--jp-ui-font-color2);
}

.cloudg-mod-error {
  color: var(--cloudg-error-text);
}

.cloudg-Sidebar code {
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  color: var(--jp-content-font-color1);
}

.cloudg-Select.jp-select-wrapper {
  margin-bottom: 0;
  min-width: 0;
}

.cloudg-Select-caret {
  position: absolute;
  top: 0;
  right: 6px;
  bottom: 0;
  display: flex;
  align-items: center;
  pointer-events: none;
}

.cloudg-Sidebar input.jp-mod-styled,
.cloudg-Sidebar select.jp-mod-styled {
  min-width: 0;
  width: 100%;
  box-sizing: border-box;
}

/* -- Approvals ------------------------------------------------------------------------- */

.cloudg-Approval {
  margin: 6px 0 10px;
  padding: 8px;
  border: var(--jp-border-width) solid var(--jp-warn-color1);
  border-left-width: 4px;
  border-radius: var(--jp-border-radius);
  background: var(--jp-layout-color1);
}

.cloudg-Approval.cloudg-mod-urgent {
  border-color: var(--jp-error-color1);
}

.cloudg-Approval.cloudg-mod-flash {
  animation: cloudg-flash 1.2s ease-out;
}

@keyframes cloudg-flash {
  from {
    box-shadow: 0 0 0 3px var(--jp-brand-color1);
  }

  to {
    box-shadow: 0 0 0 0 transparent;
  }
}

.cloudg-Approval-head {
  display: flex;
  flex-wrap: wrap;
  align-items: baseline;
  gap: 4px;
  color: var(--jp-ui-font-color0);
}

.cloudg-Approval-timer {
  margin-left: auto;
  color: var(--jp-ui-font-color2);
  font-variant-numeric: tabular-nums;
}

.cloudg-Approval.cloudg-mod-urgent .cloudg-Approval-timer {
  color: var(--cloudg-error-text);
  font-weight: 600;
}

.cloudg-Approval-track {
  height: 3px;
  margin: 6px 0;
  background: var(--jp-layout-color3);
  border-radius: 2px;
  overflow: hidden;
}

.cloudg-Approval-bar {
  height: 100%;
  background: var(--jp-warn-color1);
  transition: width 1s linear;
}

.cloudg-Approval-summary {
  margin: 4px 0;
  color: var(--jp-ui-font-color1);
}

.cloudg-Approval-effects {
  margin: 4px 0 8px;
  padding-left: 16px;
}

.cloudg-Approval-effect {
  margin: 2px 0;
  word-break: break-word;
}

.cloudg-Approval-effect.cloudg-mod-others {
  color: var(--cloudg-error-text);
  font-weight: 600;
  list-style: none;
  margin-left: -12px;
}

.cloudg-Approval-details {
  margin: 0 0 8px;
  color: var(--jp-ui-font-color2);
}

.cloudg-Approval-details summary {
  cursor: pointer;
}

.cloudg-Approval-arguments {
  max-height: 12em;
  margin: 4px 0 0;
  padding: 4px 6px;
  overflow: auto;
  white-space: pre-wrap;
  word-break: break-word;
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  color: var(--jp-content-font-color1);
  background: var(--jp-cell-editor-background);
}

.cloudg-Approval-reason {
  width: 100%;
  margin-bottom: 6px;
}

.cloudg-Approval-actions,
.cloudg-Connect-actions {
  display: flex;
  gap: 6px;
  margin: 4px 0;
}

.cloudg-Approvals-recent {
  margin: 0;
  padding: 0;
  list-style: none;
}

.cloudg-Decision {
  display: flex;
  flex-wrap: wrap;
  gap: 4px;
  padding: 3px 0;
  border-bottom: var(--jp-border-width) solid var(--jp-border-color2);
}

.cloudg-Decision-time {
  color: var(--jp-ui-font-color2);
  font-variant-numeric: tabular-nums;
}

.cloudg-Decision-state {
  font-weight: 600;
}

.cloudg-Decision.cloudg-mod-approved .cloudg-Decision-state {
  color: var(--cloudg-success-text);
}

.cloudg-Decision.cloudg-mod-denied .cloudg-Decision-state,
.cloudg-Decision.cloudg-mod-expired .cloudg-Decision-state {
  color: var(--cloudg-error-text);
}

/* -- Assistants ------------------------------------------------------------------------ */

.cloudg-Assistants-list {
  margin: 0;
  padding: 0;
  list-style: none;
}

.cloudg-Assistant {
  padding: 6px 0;
  border-bottom: var(--jp-border-width) solid var(--jp-border-color2);
}

.cloudg-Assistant-head {
  display: flex;
  align-items: center;
  gap: 6px;
}

.cloudg-Assistant-name {
  color: var(--jp-ui-font-color0);
}

.cloudg-Assistant-client {
  color: var(--jp-ui-font-color2);
}

.cloudg-Assistant-head button.jp-mod-styled {
  margin-left: auto;
  height: 24px;
  line-height: 24px;
  padding: 0 8px;
}

.cloudg-Assistant-meta {
  display: flex;
  flex-wrap: wrap;
  gap: 2px 10px;
  margin-top: 2px;
  color: var(--jp-ui-font-color2);
  font-size: var(--jp-ui-font-size0);
}

.cloudg-Assistant-meta .cloudg-mod-live {
  color: var(--cloudg-success-text);
}

.cloudg-Connect {
  display: grid;
  gap: 6px;
}

.cloudg-Connect label {
  display: grid;
  grid-template-columns: 4.5em minmax(0, 1fr);
  align-items: center;
  gap: 6px;
}

.cloudg-Connect-error:empty {
  display: none;
}

.cloudg-Connect-result {
  margin-top: 8px;
  padding: 8px;
  border: var(--jp-border-width) solid var(--jp-brand-color1);
  border-radius: var(--jp-border-radius);
  background: var(--jp-layout-color1);
}

.cloudg-Connect-result[hidden] {
  display: none;
}

.cloudg-Connect-config {
  max-height: 14em;
  margin: 6px 0;
  padding: 6px;
  overflow: auto;
  white-space: pre-wrap;
  word-break: break-all;
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  color: var(--jp-content-font-color1);
  background: var(--jp-cell-editor-background);
  border: var(--jp-border-width) solid var(--jp-cell-editor-border-color);
}

/* -- Activity -------------------------------------------------------------------------- */

.cloudg-Activity-toolbar {
  display: flex;
  align-items: center;
  gap: 8px;
  margin: 4px 0;
}

.cloudg-Activity-toolbar .cloudg-Select {
  flex: 0 1 12em;
}

.cloudg-Activity-count {
  margin-left: auto;
  color: var(--jp-ui-font-color2);
  font-variant-numeric: tabular-nums;
}

.cloudg-Activity-viewport {
  position: relative;
  height: min(360px, 45vh);
  overflow-y: auto;
  border: var(--jp-border-width) solid var(--jp-border-color2);
  background: var(--jp-layout-color1);
  contain: strict;
}

.cloudg-Activity-spacer {
  position: relative;
}

.cloudg-Entry {
  position: absolute;
  top: 0;
  left: 0;
  right: 0;
  height: 40px; /* ROW_HEIGHT in activity.ts */
  box-sizing: border-box;
  padding: 3px 6px;
  border-bottom: var(--jp-border-width) solid var(--jp-border-color3);
  overflow: hidden;
  white-space: nowrap;
}

.cloudg-Entry[hidden] {
  display: none;
}

.cloudg-Entry-line {
  display: flex;
  gap: 8px;
  line-height: 17px;
  overflow: hidden;
  text-overflow: ellipsis;
}

.cloudg-Entry-time {
  color: var(--jp-ui-font-color2);
  font-variant-numeric: tabular-nums;
}

.cloudg-Entry-who {
  color: var(--jp-ui-font-color1);
}

.cloudg-Entry.cloudg-mod-assistant .cloudg-Entry-who {
  color: var(--jp-brand-color1);
}

.cloudg-Entry-name {
  overflow: hidden;
  text-overflow: ellipsis;
}

.cloudg-Entry-details {
  font-size: var(--jp-ui-font-size0);
  color: var(--jp-ui-font-color2);
}

.cloudg-Entry-outcome {
  font-weight: 600;
  color: var(--cloudg-success-text);
}

.cloudg-Entry:not(.cloudg-mod-ok) .cloudg-Entry-outcome {
  color: var(--cloudg-error-text);
}

.cloudg-Entry.cloudg-mod-waiting {
  border-left: 3px solid var(--jp-warn-color1);
}

.cloudg-Entry[data-approval-id] {
  cursor: pointer;
}

.cloudg-Entry.cloudg-mod-waiting .cloudg-Entry-outcome {
  color: var(--cloudg-warn-text);
}

.cloudg-Entry-redacted {
  color: var(--cloudg-warn-text);
}

/* -- Status bar ------------------------------------------------------------------------ */

.cloudg-Status {
  display: flex;
  align-items: center;
  gap: 4px;
  padding: 0 5px;
  cursor: pointer;
}

.cloudg-Status-icon {
  display: flex;
}

.cloudg-Status.cloudg-mod-pending {
  background: var(--cloudg-pending-background);
  color: var(--cloudg-pending-text);
}

.cloudg-Status.cloudg-mod-pending .cloudg-Status-text {
  color: var(--cloudg-pending-text);
  font-weight: 600;
}

/* OAuth connection requests waiting for the analyst's consent (Assistants section). */
.cloudg-Connections-list {
  list-style: none;
  margin: 4px 0 8px;
  padding: 0;
}

.cloudg-Connection {
  padding: 6px 8px;
  margin-bottom: 4px;
  border-left: 3px solid var(--jp-warn-color1);
  background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
}

.cloudg-Connection-review {
  color: var(--jp-content-link-color);
}
`,""]),e.d(r,{},{A:l})},"./node_modules/css-loader/dist/runtime/api.js"(o){o.exports=function(o){var r=[];return r.toString=function(){return this.map(function(r){var e="",t=void 0!==r[5];return r[4]&&(e+="@supports (".concat(r[4],") {")),r[2]&&(e+="@media ".concat(r[2]," {")),t&&(e+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),e+=o(r),t&&(e+="}"),r[2]&&(e+="}"),r[4]&&(e+="}"),e}).join("")},r.i=function(o,e,t,a,n){"string"==typeof o&&(o=[[null,o,void 0]]);var l={};if(t)for(var d=0;d<this.length;d++){var i=this[d][0];null!=i&&(l[i]=!0)}for(var c=0;c<o.length;c++){var s=[].concat(o[c]);t&&l[s[0]]||(void 0!==n&&(void 0===s[5]||(s[1]="@layer".concat(s[5].length>0?" ".concat(s[5]):""," {").concat(s[1],"}")),s[5]=n),e&&(s[2]&&(s[1]="@media ".concat(s[2]," {").concat(s[1],"}")),s[2]=e),a&&(s[4]?(s[1]="@supports (".concat(s[4],") {").concat(s[1],"}"),s[4]=a):s[4]="".concat(a)),r.push(s))}},r}},"./node_modules/css-loader/dist/runtime/noSourceMaps.js"(o){o.exports=function(o){return o[1]}},"./node_modules/style-loader/dist/runtime/injectStylesIntoStyleTag.js"(o){var r=[];function e(o){for(var e=-1,t=0;t<r.length;t++)if(r[t].identifier===o){e=t;break}return e}function t(o,t){for(var a={},n=[],l=0;l<o.length;l++){var d=o[l],i=t.base?d[0]+t.base:d[0],c=a[i]||0,s="".concat(i," ").concat(c);a[i]=c+1;var u=e(s),p={css:d[1],media:d[2],sourceMap:d[3],supports:d[4],layer:d[5]};if(-1!==u)r[u].references++,r[u].updater(p);else{var g=function(o,r){var e=r.domAPI(r);return e.update(o),function(r){r?(r.css!==o.css||r.media!==o.media||r.sourceMap!==o.sourceMap||r.supports!==o.supports||r.layer!==o.layer)&&e.update(o=r):e.remove()}}(p,t);t.byIndex=l,r.splice(l,0,{identifier:s,updater:g,references:1})}n.push(s)}return n}o.exports=function(o,a){var n=t(o=o||[],a=a||{});return function(o){o=o||[];for(var l=0;l<n.length;l++){var d=e(n[l]);r[d].references--}for(var i=t(o,a),c=0;c<n.length;c++){var s=e(n[c]);0===r[s].references&&(r[s].updater(),r.splice(s,1))}n=i}}},"./node_modules/style-loader/dist/runtime/insertBySelector.js"(o){var r={};o.exports=function(o,e){var t=function(o){if(void 0===r[o]){var e=document.querySelector(o);if(window.HTMLIFrameElement&&e instanceof window.HTMLIFrameElement)try{e=e.contentDocument.head}catch(o){e=null}r[o]=e}return r[o]}(o);if(!t)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");t.appendChild(e)}},"./node_modules/style-loader/dist/runtime/insertStyleElement.js"(o){o.exports=function(o){var r=document.createElement("style");return o.setAttributes(r,o.attributes),o.insert(r,o.options),r}},"./node_modules/style-loader/dist/runtime/setAttributesWithoutAttributes.js"(o,r,e){o.exports=function(o){var r=e.nc;r&&o.setAttribute("nonce",r)}},"./node_modules/style-loader/dist/runtime/styleDomAPI.js"(o){o.exports=function(o){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=o.insertStyleElement(o);return{update:function(e){var t,a,n;t="",e.supports&&(t+="@supports (".concat(e.supports,") {")),e.media&&(t+="@media ".concat(e.media," {")),(a=void 0!==e.layer)&&(t+="@layer".concat(e.layer.length>0?" ".concat(e.layer):""," {")),t+=e.css,a&&(t+="}"),e.media&&(t+="}"),e.supports&&(t+="}"),(n=e.sourceMap)&&"u">typeof btoa&&(t+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(n))))," */")),o.styleTagTransform(t,r,o.options)},remove:function(){var o;null===(o=r).parentNode||o.parentNode.removeChild(o)}}}},"./node_modules/style-loader/dist/runtime/styleTagTransform.js"(o){o.exports=function(o,r){if(r.styleSheet)r.styleSheet.cssText=o;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(o))}}},"./style/index.js"(o,r,e){var t=e("./node_modules/style-loader/dist/runtime/injectStylesIntoStyleTag.js"),a=e.n(t),n=e("./node_modules/style-loader/dist/runtime/styleDomAPI.js"),l=e.n(n),d=e("./node_modules/style-loader/dist/runtime/insertBySelector.js"),i=e.n(d),c=e("./node_modules/style-loader/dist/runtime/setAttributesWithoutAttributes.js"),s=e.n(c),u=e("./node_modules/style-loader/dist/runtime/insertStyleElement.js"),p=e.n(u),g=e("./node_modules/style-loader/dist/runtime/styleTagTransform.js"),m=e.n(g),v=e("./node_modules/css-loader/dist/cjs.js!./style/base.css"),f={};f.styleTagTransform=m(),f.setAttributes=s(),f.insert=i().bind(null,"head"),f.domAPI=l(),f.insertStyleElement=p(),a()(v.A,f),v.A&&v.A.locals&&v.A.locals}}]);