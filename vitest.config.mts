import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Browser tests poll the page; on a loaded 2-core CI machine a second is too short.
    expect: { poll: { timeout: 10_000 } }
  }
})
