/** The value as a JSON object, or undefined when it is not one (null, an array, a scalar). */
export const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
