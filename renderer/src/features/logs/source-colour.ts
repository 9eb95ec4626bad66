/**
 * A merged log's container colours: the n-th source of a merged log is drawn with the
 * n-th of the theme's eight log-source colours (--log-source-1…8 in tokens.css, each AA
 * on every row background in both themes). Sources come in a stable order (a pod's
 * containers by name), so a container keeps its colour when the log is opened again.
 */
const colours = 8;

export function sourceColourClass(source: number): string {
  return `log-source-${(source % colours) + 1}`;
}
