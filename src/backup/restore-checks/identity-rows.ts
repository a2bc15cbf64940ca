import { secretHashProblem } from '../../identity/secret-hash-format.ts';
import { at, inStep, overRowids, type Candidate } from './candidate.ts';

const PUBLIC_ID = /^[0-9a-f]{16}$/;

/**
 * E-mails are stored lower-case (every lookup lower-cases what it is given, so another one could never be
 * managed again). Password and token-secret hashes are scrypt hashes of a cost the service will compute (the cost is read
 * from the hash: a crafted one could ask for gigabytes per login), and API token ids have the form tokens
 * carry (api-token-format.ts), so every stored token stays usable and revocable.
 */
export async function checkIdentityRows(candidate: Candidate): Promise<string | undefined> {
  const users = candidate.prepare(
    `SELECT CAST(rowid AS TEXT) AS row, email, password_hash AS hash FROM users WHERE ${inStep}`,
  );
  const problem = await overRowids(candidate, 'users', (from, to) => {
    for (const { row, email, hash } of users.all(from, to) as {
      row: string;
      email: string;
      hash: string;
    }[]) {
      if (email !== email.toLowerCase() || email.length === 0 || email.length > 254) {
        return at('users', row, 'email', 'is not a lower-case e-mail of 1 to 254 characters');
      }
      const problem = secretHashProblem(hash);
      if (problem) return at('users', row, 'password_hash', problem);
    }
    return undefined;
  });
  if (problem) return problem;
  const tokens = candidate.prepare(
    `SELECT CAST(rowid AS TEXT) AS row, public_id, secret_hash AS hash FROM api_tokens WHERE ${inStep}`,
  );
  return overRowids(candidate, 'api_tokens', (from, to) => {
    for (const { row, public_id, hash } of tokens.all(from, to) as {
      row: string;
      public_id: string;
      hash: string;
    }[]) {
      if (!PUBLIC_ID.test(public_id))
        return at('api_tokens', row, 'public_id', 'is not 16 lower-case hex digits');
      const problem = secretHashProblem(hash);
      if (problem) return at('api_tokens', row, 'secret_hash', problem);
    }
    return undefined;
  });
}
