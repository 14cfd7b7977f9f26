// Text put into a Markdown table cell on the forge (PR bodies, the applier's comment, the validate job summary):
// it comes from Runtimes, Shoots and checked files, so it must not end the cell, the row or the table, nor
// open HTML that GitHub would render.
import { printable } from '../model/printable.js';

/** One line, no column break, no HTML, control characters escaped. */
export function tableCell(text: string): string {
  return printable(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('|', '\\|')
    .replace(/\r?\n/g, ' ');
}
