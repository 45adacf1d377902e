/**
 * The command-line libraries the CLI uses (argument parsing, tables, progress bars), re-exported
 * from one module so that they stay development dependencies: the build
 * (scripts/vendor-cli-libraries.mjs) bundles them into dist/vendor/cli-libraries.js and replaces
 * this module's compiled file with a re-export of that bundle, so installing context-simple as a
 * library pulls none of them while `npx context-simple` still runs. Tests and `tsx` run this
 * source file against the installed packages. Import them from here, never by package name.
 */
export { SingleBar, Presets } from 'cli-progress'
export { default as Table } from 'cli-table3'
export { Command, CommanderError, Option } from 'commander'
