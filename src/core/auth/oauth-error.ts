import { AppError, type ErrorCode } from '../../shared/errors.js';

/** The OAuth 2.0 error strings the token endpoint and protected routes answer with (docs/http-api.md#errors). */
export type OAuthErrorCode =
  'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_token' | 'access_denied';

/**
 * An AppError carrying the OAuth error string in `details.oauth_error`: the HTTP layer renders it
 * as `{error, error_description}` (RFC 6749 §5.2) instead of the `{error, message}` of other routes.
 */
export function oauthError(code: ErrorCode, oauth: OAuthErrorCode, description: string): AppError {
  return new AppError(code, description, { oauth_error: oauth });
}
