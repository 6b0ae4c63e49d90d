// An MCP client's OAuth side, as the SDK's OAuthClientProvider: it keeps
// its registration, the verifier of its challenge and its tokens in memory,
// and "opens the browser" by keeping the authorization URL for the test to
// follow (with fetch, or in Chromium).
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export class TestOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** Where the client would send the user's browser. */
  opened: URL | undefined;

  private readonly redirect: () => string;
  private readonly name: string;

  constructor(redirect: () => string, name = 'Test MCP client') {
    this.redirect = redirect;
    this.name = name;
  }

  get redirectUrl() { return this.redirect(); }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirect()], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info: OAuthClientInformationMixed) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: OAuthTokens) { this.saved = tokens; }
  redirectToAuthorization(url: URL) { this.opened = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}
