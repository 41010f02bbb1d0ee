import { homedir } from 'node:os'
import { join } from 'node:path'

/** The folder Electron uses as userData for this app, so both hosts (and `schedlab vm`'s cache) share it. */
export function defaultDataDir(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'schedlab')
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'schedlab')
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'schedlab')
}
