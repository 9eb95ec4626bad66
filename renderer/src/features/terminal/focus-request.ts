/**
 * The newest request to focus a pane. It focuses now if the pane is on screen, else the
 * moment it is (`attached`), else at the next frames. Now, because keys typed right after
 * Alt+arrow, a click or a command must reach the pane the user moved to: a focus left for
 * the next frame let them fall into the pane before (issue 12). Only the newest request is
 * kept, so a late one never takes the focus back from a newer move, and it lapses after
 * two frames, so a pane shown much later (the view switched back) doesn't pull the focus in.
 */
export class FocusRequest {
  private pending: string | undefined;

  /** `focus` focuses the pane if it is there and on screen, and says whether it did. */
  constructor(private readonly focus: (paneId: string) => boolean) {}

  request(paneId: string): void {
    this.pending = paneId;
    if (this.tryNow() || typeof requestAnimationFrame !== 'function') return;
    requestAnimationFrame(() => {
      if (this.pending !== paneId || this.tryNow()) return;
      requestAnimationFrame(() => {
        if (this.pending !== paneId) return;
        this.tryNow();
        this.pending = undefined;
      });
    });
  }

  /** A pane's terminal went on screen: it takes the focus if the request is for it. */
  attached(paneId: string): void {
    if (this.pending === paneId) this.tryNow();
  }

  private tryNow(): boolean {
    const paneId = this.pending;
    if (paneId === undefined || !this.focus(paneId)) return false;
    this.pending = undefined;
    return true;
  }
}
