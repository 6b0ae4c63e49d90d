// Which addresses outbound calls may not reach, classified on the parsed
// address with node's net.BlockList, never on its spelling: the URL parser
// writes [::ffff:127.0.0.1] as [::ffff:7f00:1], and BlockList matches an
// IPv4-mapped IPv6 address against the IPv4 rules whatever its form.
import net from 'node:net';

/** Not public: this host, private networks, link-local (cloud metadata), shared, reserved, documentation, multicast. */
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
/**
 * IPv6: unspecified, loopback and IPv4-compatible (::/96), IPv4-translated
 * (::ffff:0:0:0/96, SIIT: an IPv4 address behind a translator), NAT64 (64:ff9b::/96,
 * 64:ff9b:1::/48) and the tunnels that embed an IPv4 address (Teredo
 * 2001::/32, 6to4 2002::/16), discard, documentation, unique-local,
 * link-local, site-local, multicast. IPv4-mapped ::ffff:0:0/96 follows V4.
 */
const V6: Array<[string, number]> = [
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];

const refused = new net.BlockList();
for (const [address, prefix] of V4) refused.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of V6) refused.addSubnet(address, prefix, 'ipv6');

/** The bare address of a host as a URL or a socket gives it: no brackets, no zone. */
export function bareAddress(host: string): string {
  return host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
}

/** Whether an IP address is one outbound calls may not reach; anything that is not an IP address counts as one. */
export function isPrivateAddress(address: string): boolean {
  const ip = bareAddress(address);
  const family = net.isIP(ip);
  if (family === 0) return true;
  return refused.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * HTTP_ALLOW_PRIVATE_NETWORKS as a rule: `true` allows every private address,
 * `false` none, else a comma-separated list of addresses or CIDR ranges
 * (10.0.0.0/8, fd00::/8), matched on the parsed address as above.
 */
export function privateNetworkRule(setting: string): (address: string) => boolean {
  if (setting === 'true') return () => true;
  const allowed = new net.BlockList();
  for (const entry of setting === 'false' ? [] : setting.split(',').map((a) => a.trim()).filter(Boolean)) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = net.isIP(bareAddress(address));
    if (family === 0) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) allowed.addAddress(bareAddress(address), type);
    else allowed.addSubnet(bareAddress(address), Number(prefix), type);
  }
  return (address) => {
    const ip = bareAddress(address);
    const family = net.isIP(ip);
    return family !== 0 && allowed.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/** The one question every outbound connection asks: may this address be reached? */
export function outboundRule(mayReach: (address: string) => boolean): (address: string) => boolean {
  return (address) => isPrivateAddress(address) && !mayReach(address);
}
