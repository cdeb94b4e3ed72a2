import type { KnownCreateElicitationRequest } from '@acp-kit/schema';
import { Client, type ClientConnection } from '@acp-kit/sdk';

/** What the application can ask its user. */
export interface UserPrompts {
  choose(question: string, choices: string[]): Promise<string | null>;
  fill(question: string, fields: string[]): Promise<Record<string, string> | null>;
}

/** A client that asks its user when the agent asks for permission or for input. */
export function interactiveClient(connection: ClientConnection, user: UserPrompts): Client {
  return new Client(connection, {
    info: { name: 'example-client', version: '1.0.0' },
    // Agents send form elicitations only to clients that advertise them.
    capabilities: { elicitation: { form: {} } },
    async onPermission(request) {
      const names = request.options.map((o) => o.name);
      const chosen = await user.choose(request.title, names);
      const option = request.options.find((o) => o.name === chosen);
      return option
        ? { outcome: { outcome: 'selected', optionId: option.optionId } }
        : { outcome: { outcome: 'cancelled' } };
    },
    async onElicitation(received) {
      // The union is open (a newer agent may send other modes): narrow it to the known ones.
      const request = received as KnownCreateElicitationRequest;
      if (request.mode !== 'form') return { action: 'decline' };
      const fields = Object.keys(request.requestedSchema.properties);
      const values = await user.fill(request.message, fields);
      return values ? { action: 'accept', content: values } : { action: 'cancel' };
    },
  });
}
