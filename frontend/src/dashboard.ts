// What a dashboard is to the page that shows it (dashboards.ts): its tab, its element, and how it follows the data
// and the view's state.

export interface Dashboard {
  id: string;
  title: string;
  /** The plugin whose presence in /data/plugins_listing shows the tab. */
  plugin: string;
  element: HTMLElement;
  /** Fetches its data again and draws it; resolves once drawn. */
  refresh(): Promise<void>;
  /** The view's state changed (`changed`: the fields) while it is shown. */
  onState(changed: Set<string>): void;
  /** Whether its data is there when its plugin is not listed (data that only TS-VIS's API lists). */
  available?(): Promise<boolean>;
  /** Whether it picks its run itself: the run list, which would select nothing, is hidden. */
  ownRuns?: boolean;
}
