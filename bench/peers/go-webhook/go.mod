module rayjobguard.local/peers/gowebhook

go 1.19
