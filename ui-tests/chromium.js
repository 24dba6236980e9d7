/**
 * Debian's Chromium, as both Playwright configurations launch it (a test tool's own browser
 * download does not work on these machines; see ../shared/TOOLCHAIN.md).
 */
module.exports = {
  executablePath: '/usr/lib/chromium/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync'
  ]
};
