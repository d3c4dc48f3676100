// The context routes receive. (koa-websocket's types add `websocket` to Koa's `Context`;
// plain HTTP routes never have one.)
import type { ParameterizedContext } from 'koa';

export type HttpContext = ParameterizedContext;
