export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Fetches JSON with a timeout; non-2xx responses throw an HttpError. */
export async function fetchJson<T>(url: string, init: RequestInit = {}, timeoutMs = 10_000): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, { ...init, signal: controller.signal, headers: { Accept: "application/json", ...init.headers } });
    if (!res.ok) {
      throw new HttpError(res.status, `${res.status} ${res.statusText} for ${url}`);
    }
    return (await res.json()) as T;
  } finally {
    clearTimeout(timer);
  }
}
