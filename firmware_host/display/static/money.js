// Money as engine.money.format_money writes it ("EUR 12.50"): the state's `currency` and `decimals`; without them EUR, 2.
export function formatMoney(amount, state, signed = false) {
  const currency = typeof state?.currency === "string" ? state.currency : "EUR";
  const decimals = Number.isInteger(state?.decimals) && state.decimals >= 0 ? state.decimals : 2;
  const sign = amount < 0 ? "\u2212" : signed && amount > 0 ? "+" : "";
  const scale = 10 ** decimals;
  const units = Math.floor(Math.abs(amount) / scale);
  const minor = String(Math.abs(amount) % scale).padStart(decimals, "0");
  return `${currency} ${sign}${decimals ? `${units}.${minor}` : units}`;
}

export function formatNet(amount, state) {
  return amount === 0 ? "push" : formatMoney(amount, state, true);
}
