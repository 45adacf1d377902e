// Test helper: run a parse that must fail and return its RecordingFormatError.
import { expect } from 'vitest'
import { RecordingFormatError } from '../../src/shell/recording-file.js'

/** Runs `run`, asserts it throws a `RecordingFormatError`, and returns that error. */
export const thrown = (run: () => unknown): RecordingFormatError => {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(RecordingFormatError)
    return error as RecordingFormatError
  }
  throw new Error('expected a RecordingFormatError')
}
