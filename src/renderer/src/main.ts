import './styles.css'
import { getApi } from './api/client'
import { startShell } from './shell'
import { errorMessage } from './dom'

async function boot(): Promise<void> {
  const root = document.getElementById('app')!
  try {
    const { api, closed } = await getApi()
    const shell = startShell(api, root)
    await shell.started
    void closed?.then(() => shell.workbench.disconnected())
    document.body.dataset.ready = 'true'
  } catch (err) {
    const box = document.createElement('div')
    box.className = 'fatal'
    box.setAttribute('data-testid', 'error-panel')
    box.textContent = `schedlab could not start: ${errorMessage(err)}`
    root.replaceChildren(box)
  }
}

void boot()
