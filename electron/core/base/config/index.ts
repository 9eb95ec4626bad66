export { defaultConfigDir } from './paths';
export { readJsonFile, writeJsonFileAtomic } from './json-file';
