import type { KnownCreateElicitationRequest } from '@acp-kit/schema';
import { Client, type ClientConnection } from '@acp-kit/sdk';

/** What the application can show its user. `signal` aborts when the agent withdraws the question. */
export interface Screen {
  form(message: string, fields: string[], signal: AbortSignal): Promise<Record<string, string> | null>;
  openUrl(message: string, url: string, signal: AbortSignal): Promise<boolean>;
  urlFinished(elicitationId: string): void;
}

export function elicitingClient(connection: ClientConnection, screen: Screen): Client {
  return new Client(connection, {
    info: { name: 'eliciting-client', version: '1.0.0' },
    // Agents only ask in the modes the client lists here.
    capabilities: { elicitation: { form: {}, url: {} } },
    async onElicitation(received, { signal }) {
      // The union is open (a newer agent may send other modes): narrow it to the known ones.
      const request = received as KnownCreateElicitationRequest;
      if (request.mode === 'form') {
        const fields = Object.keys(request.requestedSchema.properties);
        const values = await screen.form(request.message, fields, signal);
        return values ? { action: 'accept', content: values } : { action: 'decline' };
      }
      if (request.mode === 'url') {
        const opened = await screen.openUrl(request.message, request.url, signal);
        return opened ? { action: 'accept' } : { action: 'decline' };
      }
      return { action: 'decline' };
    },
    onElicitationComplete: ({ elicitationId }) => screen.urlFinished(elicitationId),
  });
}
