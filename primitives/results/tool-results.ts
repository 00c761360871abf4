// Moved to primitives/tools/all-tools.ts; kept until policy/trust.ts reads it from there.
export { parseToolResult, type ToolName as ToolCallName, type ToolResultOf } from '../tools/all-tools.js';
