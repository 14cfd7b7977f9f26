// Whether a path stays within a folder: the one test behind "a link is followed only inside the tree" when
// reading Runtimes and "nothing is written outside --out" when writing.
import { isAbsolute, relative, sep } from 'node:path';

/** Whether `path` is `folder` or below it (both absolute and resolved; real paths where links matter). */
export function isInside(folder: string, path: string): boolean {
  const fromFolder = relative(folder, path);
  return fromFolder !== '..' && !fromFolder.startsWith(`..${sep}`) && !isAbsolute(fromFolder);
}
