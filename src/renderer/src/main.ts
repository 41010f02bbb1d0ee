import './styles.css'
import { getApi } from './api/client'
import { App } from './app'
import { errorMessage } from './dom'

async function boot(): Promise<void> {
  const root = document.getElementById('app')!
  try {
    const { api, closed } = await getApi()
    const app = new App(api, root)
    await app.start()
    void closed?.then(() => app.disconnected())
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
