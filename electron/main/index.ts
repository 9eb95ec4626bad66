import { runApp } from './app';

runApp();
