/**
 * `@acp-kit/sdk/nes`: Next Edit Suggestions (unstable upstream surface). For now the text
 * document model an agent keeps from `document/didOpen` and `document/didChange`.
 */
export * from './document/index.js';
