/** Formats an amount in minor units (cents) as a localized currency string. */
export function formatCurrency(cents: number, currency = "EUR", locale = "de-DE"): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(cents / 100);
}

/** Parses user input such as "1.234,56 €" back into cents. */
export function parseCurrency(input: string): number {
  const normalized = input.replace(/[^\d,.-]/g, "").replace(/\.(?=\d{3})/g, "").replace(",", ".");
  const value = Number.parseFloat(normalized);
  if (Number.isNaN(value)) throw new Error(`not an amount: ${input}`);
  return Math.round(value * 100);
}
