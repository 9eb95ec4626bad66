export { defaultConfigDir } from './paths';
export { readJsonFile, writeJsonFileAtomic, writeTextFileAtomic } from './json-file';
