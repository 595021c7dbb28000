export type Direction = "asc" | "desc";

/** Sorts table rows by a column, numbers numerically and text by locale. */
export function sortRows<T extends Record<string, string | number>>(rows: T[], column: keyof T, dir: Direction): T[] {
  const sign = dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[column];
    const y = b[column];
    if (typeof x === "number" && typeof y === "number") return sign * (x - y);
    return sign * String(x).localeCompare(String(y));
  });
}
