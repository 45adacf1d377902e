import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // dist/ for the tests of compiled code, built when missing or stale (there is no install script)
    globalSetup: ['test/support/build-dist.ts'],
    projects: [
      { test: { name: 'unit', include: ['test/**/*.test.ts'], testTimeout: 60_000 } },
      { test: { name: 'property', include: ['property-tests/**/*.test.ts'], testTimeout: 120_000 } },
    ],
  },
})
