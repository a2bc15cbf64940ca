// Tests look IEs up by name in decoded containers; the service reads them through the generated readers.

/** The value of the first IE of a container with that name, typed by the container's object set. */
export function ieValue<F extends { name: string | null; value: unknown }, N extends F['name'] & string>(
  ies: readonly F[],
  name: N,
): Extract<F, { name: N }>['value'] | undefined {
  const found = ies.find((ie): ie is Extract<F, { name: N }> => ie.name === name);
  return found?.value;
}
