// Worker entry in plain JS: register the TypeScript loader in this thread, then load the worker.
import { register } from 'tsx/esm/api'

register()
await import('./worker.mts')
