import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/**/*.test.ts'], testTimeout: 60_000 } },
      { test: { name: 'property', include: ['property-tests/**/*.test.ts'], testTimeout: 120_000 } },
    ],
  },
})
