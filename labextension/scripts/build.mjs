// Build the prebuilt JupyterLab extension in `prebuilt/` from `src/` and `style/`, the same
// bytes for the same sources and package-lock.json:
//   1. tsc: src/ -> lib/ (cleaned first);
//   2. @jupyter/builder (Rspack, the builder of JupyterLab 4.6) against the core metadata of
//      @jupyterlab/core-meta, pinned by the lockfile (nothing is downloaded);
//   3. install.json (how `jupyter labextension list` names the Python package that ships it);
//   4. build-sources.json: the SHA-256 of the sources, which a test without Node compares
//      with the sources in the repository (tests/test_labextension_bundle.py).
// `node scripts/build.mjs --clean` removes lib/ and prebuilt/.

import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const output = join(root, JSON.parse(readFileSync(join(root, 'package.json'))).jupyterlab.outputDir);

/** What the bundle is made from: these files and every file under these folders. */
export const SOURCE_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'rspack.config.js',
  'install.json'
];
export const SOURCE_DIRS = ['src', 'style', 'scripts'];

function walk(dir) {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** SHA-256 over each source's POSIX path and bytes, in sorted path order. */
export function sourcesDigest() {
  const files = [
    ...SOURCE_FILES.map(name => join(root, name)),
    ...SOURCE_DIRS.flatMap(dir => walk(join(root, dir)))
  ]
    .map(path => relative(root, path).split(sep).join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file + '\0');
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return { sha256: hash.digest('hex'), files };
}

function run(command, args) {
  const done = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (done.status !== 0) {
    process.exit(done.status ?? 1);
  }
}

rmSync(join(root, 'lib'), { recursive: true, force: true });
if (process.argv.includes('--clean')) {
  rmSync(output, { recursive: true, force: true });
  process.exit(0);
}
run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root]);
run(process.execPath, [
  join(root, 'node_modules', '@jupyter', 'builder', 'lib', 'build-labextension.js'),
  '--core-package-file',
  join(root, 'node_modules', '@jupyterlab', 'core-meta', 'core.package.json'),
  root
]);
copyFileSync(join(root, 'install.json'), join(output, 'install.json'));
const digest = sourcesDigest();
writeFileSync(
  join(output, 'build-sources.json'),
  JSON.stringify({ sources_sha256: digest.sha256, files: digest.files }, null, 2) + '\n'
);
console.log(`cloudg-nb-lab: built ${relative(process.cwd(), output) || '.'} from ` +
  `${digest.files.length} source files (sha256 ${digest.sha256.slice(0, 12)}…)`);
