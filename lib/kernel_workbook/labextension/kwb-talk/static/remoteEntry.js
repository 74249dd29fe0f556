/* kwb-talk: what `kwb present` adds to the lab it starts (--LabApp.extra_labextensions_path; `make lab`
   never loads it).  A federated extension written by hand: it shares no module with the lab and needs no
   build, since it uses only the application object JupyterLab passes to a plugin.

   * the deck's stylesheet (static/deck.css: slides that fit 1280x720, the "more below" cue, code chips);
   * Ctrl+Shift+Enter in a deck runs every cell and stays on the slide shown (the lab's Run All selects the
     last cell, which takes the deck to its last slide);
   * Shift+Enter in a deck runs the selected cell and stays on its slide, as in RISE (the lab's selects the
     next cell, often on the next slide: the output would be drawn where nobody looks).

   The container below is the interface JupyterLab's loader calls (bootstrap.js, index.out.js): init(), then
   get('./extension') giving a factory of the module, whose default export is the list of plugins. */
(function () {
  'use strict';
  var NAME = 'kwb-talk';
  var DECK = '.jp-Deck .jp-Notebook';
  var RUN_ALL = 'kwb-talk:run-all-cells';

  function stylesheet() {
    var data = document.getElementById('jupyter-config-data');
    var base = data ? JSON.parse(data.textContent).fullLabextensionsUrl : '/lab/extensions';
    var link = document.createElement('link');
    link.rel = 'stylesheet';
    link.id = 'kwb-talk-deck-css';
    link.href = base + '/' + NAME + '/static/deck.css';
    document.head.appendChild(link);
  }

  var plugin = {
    id: NAME + ':plugin',
    description: 'Talk mode: the deck stylesheet, Ctrl+Shift+Enter runs every cell, Shift+Enter stays on the slide',
    autoStart: true,
    activate: function (app) {
      stylesheet();
      app.commands.addCommand(RUN_ALL, {
        label: 'Run All Cells, Staying on This Slide',
        execute: function () {
          var panel = app.shell.currentWidget;
          var notebook = panel && panel.content;
          var here = notebook ? notebook.activeCellIndex : undefined;
          var done = app.commands.execute('notebook:run-all-cells');
          if (typeof here === 'number') {
            notebook.activeCellIndex = here; // Run All selected the last cell as it queued them
          }
          return done;
        }
      });
      [
        [RUN_ALL, 'Accel Shift Enter', DECK + '.jp-mod-commandMode :focus'],
        [RUN_ALL, 'Accel Shift Enter', DECK + '.jp-mod-editMode'],
        ['notebook:run-cell', 'Shift Enter', DECK + '.jp-mod-commandMode :focus'],
        ['notebook:run-cell', 'Shift Enter', DECK + '.jp-mod-editMode']
      ].forEach(function (b) {
        app.commands.addKeyBinding({command: b[0], keys: [b[1]], selector: b[2]});
      });
    }
  };

  var root = window._JUPYTERLAB || (window._JUPYTERLAB = {});
  root[NAME] = {
    init: function () {
      return Promise.resolve();
    },
    get: function (module) {
      if (module !== './extension') {
        return Promise.reject(new Error(NAME + ' has no module ' + module));
      }
      return Promise.resolve(function () {
        return {__esModule: true, default: [plugin]};
      });
    }
  };
})();
