import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

/**
 * The two NAS re-keying settings (docs/security.md, "NAS re-keying"): `amf_nas_rekey_count` (16 to
 * 0xFFFF00) and `amf_nas_security_max_age_seconds` (0, off, to a year), from the file, PMN_* variables and
 * flags like the other AMF settings, each source overriding the one before; a bad value is refused with
 * one line naming the setting and its range.
 */

const timersOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => loadConfig(argv, env).n2.amfTimers;

describe('NAS re-keying settings', () => {
  it('unset: the AMF defaults apply (nothing in the N2 settings)', () => {
    assert.equal(timersOf([]), undefined);
  });

  it('reads the file, then PMN_* variables, then flags; the age in milliseconds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmn-config-rekey-'));
    try {
      const path = join(dir, 'config.yaml');
      writeFileSync(path, ['amf_nas_rekey_count: 4096', 'amf_nas_security_max_age_seconds: 3600'].join('\n'));
      assert.deepEqual(timersOf(['--config', path]), { nasRekeyCount: 4096, nasSecurityMaxAgeMs: 3_600_000 });
      assert.deepEqual(
        timersOf(['--config', path], {
          PMN_AMF_NAS_REKEY_COUNT: '65536',
          PMN_AMF_NAS_SECURITY_MAX_AGE_SECONDS: '0',
        }),
        { nasRekeyCount: 65536, nasSecurityMaxAgeMs: 0 },
      );
      assert.deepEqual(
        timersOf(
          ['--config', path, '--amf-nas-rekey-count', '16', '--amf-nas-security-max-age-seconds', '31536000'],
          { PMN_AMF_NAS_REKEY_COUNT: '65536' },
        ),
        { nasRekeyCount: 16, nasSecurityMaxAgeMs: 31_536_000_000 },
      );
      // One of the two alone leaves the other to the AMF's default.
      assert.deepEqual(timersOf(['--amf-nas-rekey-count', '16776960']), { nasRekeyCount: 0xffff00 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses what is not an integer in range, in one line naming the setting and the range', () => {
    const refused: [NodeJS.ProcessEnv, RegExp][] = [
      [
        { PMN_AMF_NAS_REKEY_COUNT: '15' },
        /^environment: amf_nas_rekey_count must be an integer in 16\.\.16776960$/,
      ],
      [{ PMN_AMF_NAS_REKEY_COUNT: '16776961' }, /amf_nas_rekey_count must be an integer in 16\.\.16776960/],
      [{ PMN_AMF_NAS_REKEY_COUNT: '1e6' }, /amf_nas_rekey_count/],
      [{ PMN_AMF_NAS_REKEY_COUNT: '' }, /amf_nas_rekey_count/],
      [
        { PMN_AMF_NAS_SECURITY_MAX_AGE_SECONDS: '-1' },
        /amf_nas_security_max_age_seconds must be an integer in 0\.\.31536000/,
      ],
      [{ PMN_AMF_NAS_SECURITY_MAX_AGE_SECONDS: '31536001' }, /amf_nas_security_max_age_seconds/],
      [{ PMN_AMF_NAS_SECURITY_MAX_AGE_SECONDS: '1.5' }, /amf_nas_security_max_age_seconds/],
    ];
    for (const [env, message] of refused)
      assert.throws(
        () => loadConfig([], env),
        (e: unknown) => e instanceof ConfigError && message.test(e.message) && !e.message.includes('\n'),
        JSON.stringify(env),
      );
    const dir = mkdtempSync(join(tmpdir(), 'pmn-config-rekey-'));
    try {
      const path = join(dir, 'config.yaml');
      writeFileSync(path, 'amf_nas_security_max_age_seconds: "an hour"\n');
      assert.throws(
        () => loadConfig(['--config', path], {}),
        (e: unknown) =>
          e instanceof ConfigError && /amf_nas_security_max_age_seconds must be an integer/.test(e.message),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
