export { parseRunSpec, maxSpecBytes, type RunPlan, type SpecParseResult } from './parse';
