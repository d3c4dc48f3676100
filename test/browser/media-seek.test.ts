// A declared media asset seeks in Chromium (README "Addresses", Range requests): a media element
// asks for its file by `Range`, and holds a source whose server answers no part as a stream it
// cannot seek, so `currentTime` set past the start went back to 0. The asset is a WAV file made
// here (no video encoder is at hand), played by a `<video>` element, whose seeking is the same.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** `seconds` of an 8 kHz, 8-bit mono tone as a WAV file. */
function wav(seconds: number): Buffer {
  const rate = 8000;
  const samples = Buffer.alloc(rate * seconds);
  for (let index = 0; index < samples.length; index += 1) samples[index] = 128 + Math.round(60 * Math.sin((index * 2 * Math.PI * 440) / rate));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16); // the format chunk's size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // one channel
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28); // bytes a second
  header.writeUInt16LE(1, 32); // bytes a frame
  header.writeUInt16LE(8, 34); // bits a sample
  header.write('data', 36);
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

describe('a declared media asset in Chromium', function () {
  this.timeout(120_000);
  const browser = chromiumForSuite();

  it("seeks: a <video>'s currentTime set to 6 s stays there", async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@m/app/main' }),
      'packages/app/package.json': json({ name: '@m/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/module.json': json({ platforms: ['web'], assets: ['tone.wav'] }),
      'packages/app/main/tone.wav': '',
      'packages/app/main/index.ts': [
        "const video = document.createElement('video');",
        "video.preload = 'metadata';",
        "video.src = new URL('./tone.wav', import.meta.url).href;",
        'document.body.append(video);',
        '(window as unknown as { video: HTMLVideoElement }).video = video;',
        '',
      ].join('\n'),
    });
    writeFileSync(path.join(root, 'packages/app/main/tone.wav'), wav(10));
    const service = await serve(root);
    const watched = await openPage(browser());
    try {
      await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => {
        const { video } = window as unknown as { video?: HTMLVideoElement };
        return video !== undefined && video.readyState >= HTMLMediaElement.HAVE_METADATA;
      }, undefined, { timeout: 60_000 });
      const seeked = await watched.page.evaluate(
        () =>
          new Promise<{ currentTime: number; duration: number; seekableEnd: number; error: string | null }>((resolve) => {
            const { video } = window as unknown as { video: HTMLVideoElement };
            const report = () =>
              resolve({
                currentTime: video.currentTime,
                duration: video.duration,
                seekableEnd: video.seekable.length ? video.seekable.end(video.seekable.length - 1) : -1,
                error: video.error ? video.error.message || String(video.error.code) : null,
              });
            video.addEventListener('seeked', report, { once: true });
            video.addEventListener('error', report, { once: true });
            video.currentTime = 6;
          }),
      );
      expect(seeked, JSON.stringify(watched.errors)).to.deep.equal({ currentTime: 6, duration: 10, seekableEnd: 10, error: null });
    } finally {
      await watched.page.close();
      await service.close();
    }
  });
});
