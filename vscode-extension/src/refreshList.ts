// A list the server answers to one request (autarch/jobs, autarch/swarms),
// kept in the extension and refreshed, debounced, on the server's events.
// Pure: the request goes through an injected function.

export type Request = <T>(method: string, params: unknown) => Promise<T>;

export class RefreshedList<T> {
  items: T[] = [];
  error: string | undefined;
  /** Whether the server answered once. */
  loaded = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly request: Request,
    private readonly method: string,
    private readonly delay: number,
  ) {}

  onChange(fn: () => void): { dispose(): void } {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }

  protected changed(): void {
    for (const fn of this.listeners) fn();
  }

  /** Fetches the list now. */
  async refresh(): Promise<void> {
    try {
      const list = await this.request<T[] | null>(this.method, {});
      this.items = Array.isArray(list) ? list : [];
      this.error = undefined;
      this.loaded = true;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
    this.changed();
  }

  /** Refreshes soon: a burst of events makes one request. */
  scheduleRefresh(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, this.delay);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.listeners.clear();
  }
}
