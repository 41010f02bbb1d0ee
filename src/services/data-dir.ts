import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * The folder the desktop app uses as its data folder (Electron's userData for "schedlab"), so
 * that the app, `schedlab serve` and the command line share saved runs and the patch library.
 * SCHEDLAB_USER_DATA selects another.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SCHEDLAB_USER_DATA) return resolve(env.SCHEDLAB_USER_DATA)
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'schedlab')
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'schedlab')
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'schedlab')
}

/** The patch library's folder in a data folder: one NAME.ts per patch module. */
export function patchLibraryDir(dataDir: string): string {
  return join(dataDir, 'patches')
}

// Folder creation lives beside the lowest layers that write files (src/real, src/vm use it too).
export { DirError, makeDirs, makeDirsAsync } from '../trace/make-dirs'
