export interface ReconnectOptions {
  url: string;
  maxDelayMs: number;
  onMessage: (data: string) => void;
}

/** A WebSocket that reconnects with exponential backoff after it drops. */
export class ReconnectingSocket {
  private ws?: WebSocket;
  private attempts = 0;
  private closed = false;

  constructor(private readonly opts: ReconnectOptions) {
    this.connect();
  }

  private connect(): void {
    this.ws = new WebSocket(this.opts.url);
    this.ws.onopen = () => {
      this.attempts = 0;
    };
    this.ws.onmessage = (ev) => this.opts.onMessage(String(ev.data));
    this.ws.onclose = () => {
      if (this.closed) return;
      const delay = Math.min(this.opts.maxDelayMs, 500 * 2 ** this.attempts++);
      setTimeout(() => this.connect(), delay);
    };
  }

  send(data: string): void {
    this.ws?.send(data);
  }

  close(): void {
    this.closed = true;
    this.ws?.close();
  }
}
