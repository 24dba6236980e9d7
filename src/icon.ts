import { LabIcon } from '@jupyterlab/ui-components';

import kernelStateSvg from '../style/icons/kernel-state.svg';

export const kernelStateIcon = new LabIcon({
  name: 'jupyter-kernel-state:icon',
  svgstr: kernelStateSvg
});
