export {
  formatTranscriptLine,
  type TranscriptDirection,
  type TranscriptLine,
  type TranscriptSide,
  wireDirection,
} from './format.js';
export {
  type FileTranscriptRecorder,
  recordTranscript,
  recordTranscriptToFile,
  type TappableConnection,
  type TranscriptRecorder,
  type TranscriptRecorderOptions,
  type TranscriptSink,
} from './recorder.js';
