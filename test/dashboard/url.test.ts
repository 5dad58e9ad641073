// The dashboard's address as Home Assistant links it (configuration_url).
import { expect } from 'chai';
import { dashboardUrl } from '../../runtime/dashboard/url.js';

describe('dashboard address for Home Assistant', () => {
  it('is server.public_url when set', () => {
    expect(dashboardUrl({ host: '127.0.0.1', port: 8080, public_url: 'https://vigil.example/' })).to.equal('https://vigil.example/');
  });

  it('is none on loopback, the host name on a wildcard address, the address itself otherwise', () => {
    expect(dashboardUrl({ host: '127.0.0.1', port: 8080, public_url: '' })).to.equal('');
    expect(dashboardUrl({ host: '::1', port: 8080, public_url: '' })).to.equal('');
    expect(dashboardUrl({ host: '0.0.0.0', port: 8080, public_url: '' }, 'gw-7')).to.equal('http://gw-7:8080/');
    expect(dashboardUrl({ host: '::', port: 9000, public_url: '' }, 'gw-7')).to.equal('http://gw-7:9000/');
    expect(dashboardUrl({ host: '192.168.1.20', port: 8080, public_url: '' })).to.equal('http://192.168.1.20:8080/');
    expect(dashboardUrl({ host: 'fd00::20', port: 8080, public_url: '' })).to.equal('http://[fd00::20]:8080/');
  });
});
