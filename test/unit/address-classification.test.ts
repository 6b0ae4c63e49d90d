// The SSRF guard's classification (runtime/net/addresses.ts) on parsed
// addresses: private, loopback, link-local, shared and reserved ranges in
// every IPv6 spelling that embeds them are refused; public addresses pass;
// HTTP_ALLOW_PRIVATE_NETWORKS opens exactly what it lists. (The guard on
// real connections: test/security/ssrf-forms.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bareAddress, isPrivateAddress, outboundRule, privateNetworkRule } from '../../server/ai/runtime/net/addresses.ts';
import { loadConfig } from '../../server/config.ts';

const REFUSED = [
  '127.0.0.1', '127.255.255.254', '0.0.0.0', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
  '192.0.2.5', '198.18.0.1', '224.0.0.1', '255.255.255.255',
  '::1', '::', '[::1]', '::ffff:127.0.0.1', '::ffff:7f00:1', '[::ffff:a9fe:a9fe]', '::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b:1::1',
  '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', '::ffff:0:808:808',
  '2002:7f00:1::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'fec0::1', 'ff02::1', '2001:db8::1',
  'localhost', 'not-an-address', '',
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '[2a00:1450:4001:82b::200e]', '::ffff:8.8.8.8'];

describe('outbound address classification', () => {
  it('refuses every private, loopback, link-local, shared and reserved form', () => {
    assert.deepEqual(REFUSED.filter((a) => !isPrivateAddress(a)), []);
  });

  it('lets public addresses through, IPv4-mapped ones included', () => {
    assert.deepEqual(PUBLIC.filter((a) => isPrivateAddress(a)), []);
  });

  it('strips brackets and zones before classifying', () => {
    assert.equal(bareAddress('[fe80::1%eth0]'), 'fe80::1');
    assert.equal(bareAddress('[::1]'), '::1');
  });

  it('opens exactly what HTTP_ALLOW_PRIVATE_NETWORKS lists', () => {
    const blocked = (setting: string) => outboundRule(privateNetworkRule(setting));
    assert.equal(blocked('false')('10.0.0.5'), true);
    assert.equal(blocked('true')('10.0.0.5'), false);
    const some = blocked('10.0.0.0/8, fd00::/8, 127.0.0.1');
    assert.deepEqual(['10.9.9.9', 'fd00::5', '127.0.0.1', '::ffff:10.1.1.1'].map(some), [false, false, false, false]);
    assert.deepEqual(['127.0.0.2', '192.168.0.1', 'fe80::1', '169.254.169.254'].map(some), [true, true, true, true]);
    assert.equal(some('8.8.8.8'), false, 'a public address is never blocked');
  });

  it('takes HTTP_ALLOW_PRIVATE_NETWORKS as the docs write it: ranges, spaces, IPv6, true and false', () => {
    for (const value of ['127.0.0.1/32', '10.0.0.0/8, fd00::/8', '127.0.0.1', '::1', '::ffff:127.0.0.1', 'true', 'false']) {
      assert.equal(loadConfig({ HTTP_ALLOW_PRIVATE_NETWORKS: value }).HTTP_ALLOW_PRIVATE_NETWORKS, value, value);
    }
    for (const value of ['127.0.0.1/33', 'fd00::/129', 'example.com', '10.0.0.0/8,,', 'yes']) {
      assert.throws(() => loadConfig({ HTTP_ALLOW_PRIVATE_NETWORKS: value }), /HTTP_ALLOW_PRIVATE_NETWORKS/, value);
    }
  });
});
