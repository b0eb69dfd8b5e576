// Views: drawn into Terminal buffers
