/**
 * The cloudg sidebar: JupyterLab's `SidePanel` (an accordion, as the debugger's sidebar)
 * holding the Approvals, Activity and Assistants sections. Colours come from JupyterLab's
 * theme variables only, so it follows the light and dark themes.
 */

import { LabIcon, SidePanel } from '@jupyterlab/ui-components';
import { AccordionPanel, Widget } from '@lumino/widgets';

import { ActivitySection } from './activity';
import { ApprovalsSection } from './approvals';
import { AssistantsSection } from './assistants';
import type { CloudgModel } from './model';

export const SIDEBAR_ID = 'cloudg-sidebar';

/** A cloud over a check mark, in the theme's icon colour. */
export const cloudgIcon = new LabIcon({
  name: 'cloudg-nb:cloudg',
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" viewBox="0 0 24 24">' +
    '<path class="jp-icon3" fill="#616161" d="M19.35 10.04A7.49 7.49 0 0 0 12 4C9.11 4 ' +
    '6.6 5.64 5.35 8.04A5.994 5.994 0 0 0 0 14c0 3.31 2.69 6 6 6h13c2.76 0 5-2.24 5-5 ' +
    '0-2.64-2.05-4.78-4.65-4.96zM10 17l-3.5-3.5 1.41-1.41L10 14.17l5.18-5.18 1.41 ' +
    '1.41L10 17z"/></svg>'
});

export type SectionName = 'approvals' | 'activity' | 'assistants';

export class CloudgSidebar extends SidePanel {
  constructor(readonly model: CloudgModel) {
    super();
    this.id = SIDEBAR_ID;
    this.addClass('cloudg-Sidebar');
    this.title.icon = cloudgIcon;
    this.title.caption = 'cloudg: assistants, activity and approvals';
    this.approvals = new ApprovalsSection(model);
    this.activity = new ActivitySection(model);
    this.assistants = new AssistantsSection(model);
    this.activity.onOpenApproval = id => {
      this.expand('approvals');
      this.approvals.reveal(id);
    };
    this.addWidget(this.approvals);
    this.addWidget(this.activity);
    this.addWidget(this.assistants);
  }

  readonly approvals: ApprovalsSection;
  readonly activity: ActivitySection;
  readonly assistants: AssistantsSection;

  /** Expand one section (the accordion may have it collapsed). */
  expand(section: SectionName): Widget {
    const widget = this[section];
    const accordion = this.content as AccordionPanel;
    const index = accordion.widgets.indexOf(widget);
    if (index >= 0 && typeof accordion.expand === 'function') {
      accordion.expand(index);
    }
    return widget;
  }

  protected onAfterShow(): void {
    // Last use and open sessions move without an event; a glance reloads them.
    void this.model.refreshAssistants();
  }
}
