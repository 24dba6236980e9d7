import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-kernel-state:plugin',
  description: 'Kernel state sidebar.',
  autoStart: true,
  activate: (app: JupyterFrontEnd) => {
    console.log('jupyter-kernel-state activated');
  }
};

export default plugin;
