// Money as the table's currency: the state's `currency` and `decimals` when the feed has them, else cents shown as 0.00.
export function formatMoney(amount, state) {
  const decimals = Number.isInteger(state?.decimals) ? state.decimals : 2;
  const value = amount / 10 ** decimals;
  const number = value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return state?.currency ? `${number} ${state.currency}` : number;
}

export function formatNet(amount, state) {
  if (amount === 0) return "push";
  return (amount > 0 ? "+" : "\u2212") + formatMoney(Math.abs(amount), state);
}
