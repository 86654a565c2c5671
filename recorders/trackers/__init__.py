"""The small state machines RunStepRecorder composes, one concern each."""
