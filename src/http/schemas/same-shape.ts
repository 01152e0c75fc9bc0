import type { z } from 'zod';

/**
 * The one tie between a reply schema and the core type it describes (docs/decisions.md, "One
 * definition per shape"): `Describes<typeof Schema, CoreType>` is `true` only when the schema's
 * parsed type and the core type are the same in both directions, else `never`, so a schema file
 * that declares `const x: [Describes<…>, …] = [true, …]` stops compiling as soon as the reply and
 * its OpenAPI description drift apart (a field added, renamed, made optional or nullable on one
 * side only).
 */
export type Describes<S extends z.ZodType, T> = Same<z.output<S>, T>;

/** `true` when A and B are mutually assignable, else `never`; tuples keep unions from distributing. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
