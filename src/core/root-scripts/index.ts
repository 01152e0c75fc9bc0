/**
 * The root-scripts module: what the service's root scripts answer (dictionary schema, incoming
 * events, static tokens and their rate limit).
 */
export { applyDictionarySchema, dictionarySchema } from './dictionary-schema.js';
export type { SchemaApplyReply, SchemaReply } from './dictionary-schema.js';
export { INCOMING_EVENTS, receiveEvent } from './incoming-events.js';
export type { IncomingReply } from './incoming-events.js';
export { enforceRateLimit } from './rate-limit.js';
export { bearerOf, checkBearerToken, checkWebhookToken, configuredToken } from './static-token.js';
