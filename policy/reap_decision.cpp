// placeholder: replaced by the reaper's pure decision (issue: quota returns to zero)
