type Plain = Record<string, unknown>;

function isPlainObject(v: unknown): v is Plain {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Recursively merges source into target; arrays and scalars are replaced. */
export function deepMerge<T extends Plain>(target: T, source: Plain): T {
  const out: Plain = { ...target };
  for (const [key, value] of Object.entries(source)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out as T;
}
