import { createReadStream, createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import { fileInfo, listFiles, openFile, putFile, removeFile } from '../../core/files/index.js';
import { action, examples } from '../action.js';
import { fields } from '../render.js';

/** `sds files put|get|info|list|rm` over the media area. */
export function registerFilesCommands(program: Command): void {
  const files = program
    .command('files')
    .description('media files, stored under files/media/ of the home')
    .addHelpText('after', examples('sds files put photo.jpg', 'sds files get photo.jpg -o /tmp/photo.jpg', 'sds files list --json'));

  files
    .command('put <src>')
    .description('store a file in the media area (replacing one of the same name)')
    .option('--name <name>', 'name in the media area (default: the file name); may contain / for folders')
    .addHelpText('after', examples('sds files put photo.jpg', 'sds files put ./app.pen --name apps/census.pen'))
    .action(
      action(async (ctx, src: string, opts: { name?: string }) => {
        const source = createReadStream(src);
        const opened = new Promise<void>((resolve, reject) => {
          source.once('open', () => resolve());
          source.once('error', (err) =>
            reject(new AppError('IO_ERROR', `cannot read ${src}: ${(err as NodeJS.ErrnoException).code ?? err.message}`, { file: src })),
          );
        });
        await opened;
        const info = await putFile(await ctx.store(), opts.name ?? basename(src), source);
        ctx.print(info, () => `Stored ${info.name} (${info.size} bytes)`);
      }),
    );

  files
    .command('get <name>')
    .description('write a media file to stdout, or to a file with -o')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .addHelpText('after', examples('sds files get photo.jpg -o /tmp/photo.jpg', 'sds files get apps/census.pen > census.pen'))
    .action(
      action(async (ctx, name: string, opts: { output?: string }) => {
        const { info, snapshot } = await openFile(await ctx.store(), name);
        await pipeline(snapshot.stream(), opts.output ? createWriteStream(opts.output) : process.stdout);
        if (opts.output) ctx.print(info, () => `Wrote ${info.name} to ${opts.output} (${info.size} bytes)`);
      }),
    );

  files
    .command('info <name>')
    .description('metadata of a media file')
    .addHelpText('after', examples('sds files info photo.jpg --json'))
    .action(
      action(async (ctx, name: string) => {
        const i = await fileInfo(await ctx.store(), name);
        ctx.print(i, () => fields(Object.entries(i)));
      }),
    );

  files
    .command('list')
    .description('list media files')
    .addHelpText('after', examples('sds files list', 'sds files list --json'))
    .action(
      action(async (ctx) => {
        const list = await listFiles(await ctx.store());
        ctx.print(list, () =>
          list.length
            ? ctx.table(
                ['name', 'size', 'content_type', 'updated_at'],
                list.map((f) => [f.name, f.size, f.content_type, f.updated_at]),
              )
            : 'no files',
        );
      }),
    );

  files
    .command('rm <name>')
    .description('delete a media file')
    .addHelpText('after', examples('sds files rm photo.jpg'))
    .action(
      action(async (ctx, name: string) => {
        const r = await removeFile(await ctx.store(), name);
        ctx.print(r, () => r.message);
      }),
    );
}
