// A mounted Secret as the kubelet updates it (its AtomicWriter): the files go into a new hidden folder, the
// `..data` symlink is swapped to it in one rename, and each file name is a symlink through `..data`. A reader
// sees the old files or the new ones, never a mix: the rotation tests write credentials this way.
import { existsSync } from 'node:fs';
import { mkdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

let generation = 0;

/** Writes `files` into the mount `folder` (created if new) as one atomic update. */
export async function kubeletWrite(folder: string, files: Record<string, string>): Promise<void> {
  const stamp = `..2026_12_01_${process.pid}_${++generation}`;
  await mkdir(join(folder, stamp), { recursive: true });
  for (const [name, content] of Object.entries(files)) await writeFile(join(folder, stamp, name), content);
  const previous = existsSync(join(folder, '..data')) ? await readlink(join(folder, '..data')) : undefined;
  await symlink(stamp, join(folder, '..data_tmp'));
  await rename(join(folder, '..data_tmp'), join(folder, '..data'));
  for (const name of Object.keys(files))
    if (!existsSync(join(folder, name))) await symlink(join('..data', name), join(folder, name));
  if (previous !== undefined) await rm(join(folder, previous), { recursive: true });
}
