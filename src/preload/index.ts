import { contextBridge } from 'electron'

contextBridge.exposeInMainWorld('schedlab', { version: '0.1.0' })
